"""Relay: serve any lane as any other lane (parts back to a wire format, for gateways)."""
