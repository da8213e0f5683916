"""The controllers, one module per resource: HTTP translated to service calls and back, no rules."""
