"""What several readers share in reading their agents' tool calls as actions: typed getters
for arguments of any shape, checklists, patches and numbered file text. Readers never import
each other; what two of them need lives here."""
