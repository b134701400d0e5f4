"""Child-process scripts the session crash and concurrency tests run."""
