"""One type error."""

count: int = "three"
