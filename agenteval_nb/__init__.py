"""agenteval_nb."""
