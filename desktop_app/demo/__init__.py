"""The built-in demo history, generated into Gander's data folder on first use."""
