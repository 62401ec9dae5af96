export {
  allocationPatterns,
  hostMemoryMeasurable,
  hostMemorySkipNote,
  runHostMemoryTests,
  measurePeak,
  mebibytes,
  peakBytes,
  processTree,
  residentBytes,
  resetPeaks,
  runnerOverheadBytes,
  typeLevelBomb,
} from './host-memory.js';
