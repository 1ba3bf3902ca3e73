"""The language server of rule files: `rulesengine lsp` (needs the `lsp` extra, pygls).

`analysis` and `reference` work without pygls (what the server knows about a document);
`server` speaks the Language Server Protocol with pygls.
"""
