"""Examples that use coupler with other libraries; each needs the venv examples/setup makes."""
