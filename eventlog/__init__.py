"""The campaign event log: append-only storage, the event catalogue, projections and jobs."""
