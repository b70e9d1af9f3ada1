"""mlir-mesh passes, registered by name."""
