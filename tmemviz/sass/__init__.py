"""The one reader of SASS: listing lines (nvdisasm, cuobjdump, Nsight Compute) and cubins via nvdisasm."""
