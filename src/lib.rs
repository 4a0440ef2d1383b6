//! Host package of the `lagrange` workspace: its examples, integration tests and
//! benchmarks. The README is included here so that its code is compiled and run as a
//! doctest.
#![doc = include_str!("../README.md")]
