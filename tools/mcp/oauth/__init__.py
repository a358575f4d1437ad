"""Signing in to remote MCP servers with OAuth, through the `mcp` SDK's own client auth
(`OAuthClientProvider`): the loopback listener the code comes back to (`listener`), the
provider that keeps tokens with their expiry and checks where it is sent (`provider`), and a
sign-in from a URL to a list of tools (`flow`). No token ever leaves these modules but to the
keeper the app gives them (the keychain, or an owner-only file)."""
