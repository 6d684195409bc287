"""goose's session export files (`goose session export --format json|yaml`)."""
