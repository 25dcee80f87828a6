"""Editor support: what the cursor is on, where ids are declared and used, and the language server."""
