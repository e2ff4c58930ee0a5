// WebDAV client — see docs/webdav.md.
