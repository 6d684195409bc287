"""goose's `Message` JSON → messages, wherever goose kept it.

goose stores the same message JSON in three places Gander reads through three readers: the
`content_json` and `metadata_json` columns of `sessions.db` (`sources/goose`), an export's
`conversation` (`sources/goose_export`) and a legacy `.jsonl` line (`sources/goose_legacy`).
The mapping lives here, apart from the database reader's SQL, so a block reads the same in
each and opening an export loads no SQL: content blocks → parts (`content`), metadata →
visibility, usage and inference (`metadata`), goose's time forms (`timestamps`), its built-in
tools as actions (`tools`) and one message object (`message`)."""
