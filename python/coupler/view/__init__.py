"""Watching a run: a live 3D view of a publishing server (`coupler serve --publish`) or of a recording, in the
browser (viser) or in MuJoCo's own viewer. A view only reads: it never slows the server it watches."""
