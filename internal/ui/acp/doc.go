// Package acp is gantry's editor face: an Agent Client Protocol (v1) agent that
// Zed, JetBrains IDEs and Neovim plugins start as a subprocess and drive over
// newline-delimited JSON-RPC on its stdin and stdout.
//
// It adapts github.com/coder/acp-go-sdk (imported as sdk) to gantry's core: each ACP
// session is one app.App whose events become session/update notifications, whose
// questions become session/request_permission requests, and whose file tools and
// terminal commands go through the editor when it offers fs/* and terminal/*. The SDK
// is kept behind this package so that its interface changes stay here.
package acp
