//! What a run guarantees and how accurate it is: the certificate of a manifest (`certify`), the
//! simulated accuracy of TopDown's final counts (`pp_accuracy`).
pub mod certify;
pub mod pp_accuracy;
