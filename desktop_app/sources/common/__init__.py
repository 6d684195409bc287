"""What several readers share, so that readers never import each other (an import-linter
independence contract keeps it so): raw JSON for what cannot be read (`raw_json`), the
Anthropic block mapper (`anthropic`), titles from a first user line (`titles`), goose's message
JSON for its database, exports and legacy files (`goose_json`), tool arguments, checklists,
patches and numbered file text for tool calls as actions (`arguments`, `texts`), resume
commands (`shell`) and estimated costs (`pricing`). What two readers need lives here."""
