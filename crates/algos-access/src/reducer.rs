//! The trait every engine implements: fill the cells of a block of sources.

use crate::error::AccessError;
use crate::reduction::Cell;

/// One engine's way of filling the cells of a block of sources.
pub(crate) trait Reducer {
    /// Sources per call (a few sweeps or passes; progress is reported between calls).
    fn block(&self) -> usize;
    /// Fills `cells` (one per cutoff, source by source) for `sources`.
    fn reduce(&mut self, sources: &[u32], cells: &mut [Cell]) -> Result<(), AccessError>;
}
