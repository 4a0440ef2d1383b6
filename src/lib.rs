//! Host package for the examples, integration tests and benchmarks of `lagrange`.
