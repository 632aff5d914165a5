"""Protobuf code generated from proto/coupler.proto at build time (not in the source tree)."""
