"""The declarative definition of the mesh dialect (mesh.toml), shipped as package data."""
