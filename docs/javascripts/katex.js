// Render the formulas that pymdownx.arithmatex (generic mode) wraps in \( \) and \[ \].
// mkdocs-material exposes document$, which fires on every page load (also with instant loading).
document$.subscribe(({ body }) => {
  renderMathInElement(body, {
    delimiters: [
      { left: "$$", right: "$$", display: true },
      { left: "$", right: "$", display: false },
      { left: "\\(", right: "\\)", display: false },
      { left: "\\[", right: "\\]", display: true },
    ],
    throwOnError: false,
  });
});
