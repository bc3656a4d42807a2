"""Teaching content, headless: lessons (TOML files beside the bundled examples) and quizzes
on an operator's own values. Reads the graph layer and ops; no Qt, no onnx (the editor's
Lessons and Quiz docks in ``nodeeditor.ui.lessons`` sit on top)."""
