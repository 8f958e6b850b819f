"""Server-rendered pages for players and umpires, on the same services and selectors as the API."""
