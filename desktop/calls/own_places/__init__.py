"""Deskhand's own places, out of every tool's reach: what they are (`places`: the data, config,
log and cache folders of every data dir this process opened, the key file, the socket folder,
the app), how a call's paths are resolved to find them however they are spelled (`resolve`),
and the guard that refuses such a call before any work and keeps the key out of results
(`guard`)."""
