//! The one integration-test binary (as ripgrep's `tests/tests.rs`): every end-to-end test is a module of
//! `suite`, sharing `common` (the in-process command-line runner, the readers of its output, and the
//! fixtures computed once). Heavy checks are `#[ignore = "heavy: …"]`, each with a small twin in the
//! default tier; `./scripts/test.sh --heavy` runs them.

mod common;
mod suite;
