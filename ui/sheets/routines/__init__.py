"""The routines' sheets: saving a chat as a routine, keeping one changed or added outside
Deskhand, and the parts they share."""
