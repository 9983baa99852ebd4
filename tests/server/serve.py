"""Runs llama-cpp-python's OpenAI-compatible server (python -m
llama_cpp.server, same arguments) with llama.cpp's extra buffer types off.

On a CPU that reports AMX, llama.cpp 0.3.36's CPU build multiplies through
its AMX path, which crashes (SIGSEGV in ggml_backend_amx_mul_mat) where the
kernel does not grant the tile state, as in this project's sandboxes. The
plain CPU path gives the same answers. Nothing else is changed."""
import sys

import llama_cpp.llama_cpp as C

_defaults = C.llama_model_default_params


def _no_extra_bufts():
    p = _defaults()
    p.use_extra_bufts = False
    return p


C.llama_model_default_params = _no_extra_bufts

from llama_cpp.server.__main__ import main  # noqa: E402

if __name__ == "__main__":
    sys.argv[0] = "llama_cpp.server"
    main()
