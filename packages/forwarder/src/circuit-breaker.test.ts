import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from './circuit-breaker.js';

describe('CircuitBreaker', () => {
  it('opens after the threshold of consecutive failures and reports the wait', () => {
    const breaker = new CircuitBreaker({ failureThreshold: 3, openMs: 1000 });
    breaker.failure(0);
    breaker.failure(0);
    expect(breaker.state).toBe('closed');
    breaker.success();
    breaker.failure(10);
    breaker.failure(10);
    expect(breaker.acquire(10)).toBe(0);
    breaker.failure(10);
    expect(breaker.state).toBe('open');
    expect(breaker.acquire(510)).toBe(500);
  });

  it('lets exactly one probe through when half-open; its success closes the breaker', () => {
    const states: string[] = [];
    const breaker = new CircuitBreaker({ failureThreshold: 1, openMs: 100 });
    breaker.onStateChange = (s) => states.push(s);
    breaker.failure(0);
    expect(breaker.acquire(100)).toBe(0);
    expect(breaker.state).toBe('half-open');
    expect(breaker.acquire(101)).toBeGreaterThan(0);
    breaker.success();
    expect(breaker.state).toBe('closed');
    expect(states).toEqual(['open', 'half-open', 'closed']);
  });

  it('re-opens when the half-open probe fails', () => {
    const breaker = new CircuitBreaker({ failureThreshold: 5, openMs: 100 });
    for (let i = 0; i < 5; i++) breaker.failure(0);
    expect(breaker.acquire(100)).toBe(0);
    breaker.failure(100);
    expect(breaker.state).toBe('open');
    expect(breaker.acquire(150)).toBe(50);
  });
});
