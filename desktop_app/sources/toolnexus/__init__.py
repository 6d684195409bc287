"""toolnexus conversation files (`<id>.json` arrays of provider messages)."""
