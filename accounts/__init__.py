"""Accounts: API tokens (hashed, expiring, revocable, read-only or not), throttling of log-ins and
writes, and the password rules."""
