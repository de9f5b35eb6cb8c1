"""What the server reports about itself: Prometheus metrics and structured log events."""
