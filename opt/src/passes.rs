//! Optimization passes and the pass pipelines of each `-O` level.
