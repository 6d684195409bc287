"""glean histories: `glean-json/1` files a glean host writes."""
