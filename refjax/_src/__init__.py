"""refjax internals: the rules behind the public modules."""
