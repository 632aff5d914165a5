"""Transport floors: plain ZeroMQ REQ/REP ping-pong without protocol or codec
(zmq_pingpong.cpp in C++, pingpong.py with pyzmq)."""
