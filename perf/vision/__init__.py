"""What an image costs through coupler: a served camera's colour or depth image asked for with a
SensorRequest (rendered, sent and read as an array by the Python client), against `mujoco.Renderer` alone
rendering the same camera of the same model at the same size in the same run, rounds taking turns. Then
its delivery apart from rendering (`perf.vision.delivery`): an image rendered beforehand, sent through
shared memory (with the shared channel leased) and through the socket in turns, each request timed with
the image and without it; what the image adds, as a share of the renderer's time.

    python -m perf.vision                  # 64x64, 320x240 and 640x480; rgb and depth; 5 rounds of 20 images
    python -m perf.vision --sizes 64x64 --rounds 3 --count 10
    python -m perf.vision --delivery-only  # no renderer needed

Not part of scripts/test: starting an offscreen renderer and rendering hundreds of frames in software takes
tens of seconds on a machine without a GPU. The target: coupler's cost per image <= 1.15 x the renderer's.
"""
