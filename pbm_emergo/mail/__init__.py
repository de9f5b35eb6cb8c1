"""The mail pipeline: SMTP listener -> durable inbox -> workers -> durable outbox -> delivery."""
