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
  typeLevelBomb,
} from './host-memory.js';
