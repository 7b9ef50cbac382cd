"""A loopback soak of HTTP stacks for the gateway: which one carries many streams cheapest.

Processes, each its own (so the gateway's CPU and memory are its own):

- :mod:`.upstream`: a fake Anthropic Messages API streaming paced text deltas;
- :mod:`.gateway`: one gateway on one HTTP stack (:mod:`.stack_aiohttp`,
  :mod:`.stack_asgi`, :mod:`.stack_h11`), either a pass-through proxy or a
  ``Relay(MessagesLane(), to="chat", lean=True)`` serving the upstream as Chat Completions;
  and, beside them, the ``command`` contender (:mod:`.stack_command`): ``python -m
  sse_engine gateway`` itself, its relay only;
- :mod:`.loadgen`: N concurrent streaming clients that check every stream's
  text arrived complete and unaltered and time each delta from the upstream's
  write to its receipt.

:mod:`.soak` runs one (stack, kind, N) and measures the gateway;
``python -m benchmarks.bench_gateway`` runs the matrix and writes the docs.
"""
