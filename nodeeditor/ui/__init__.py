"""The ui layer: PySide6 windows, canvas, docks. The only layer that imports Qt."""
