"""The conversation as the person sees it: bubbles, replies in Markdown, tool cards, images, versions."""
