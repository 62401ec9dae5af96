export {
  allocationPatterns,
  hostMemoryMeasurable,
  measurePeak,
  mebibytes,
  peakBytes,
  processTree,
  residentBytes,
  resetPeaks,
  runnerOverheadBytes,
} from './host-memory.js';
