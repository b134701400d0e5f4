"""The private views: summary text, Markdown, terminal and HTML rendering, anchor, diffs."""
