"""Muster's rulesets as pure Python: dice, scales and the procedures of the books.

Nothing in this package imports Django or any other part of Muster, touches the clock or the
network, or uses the global ``random`` module. Every procedure takes its dice as input and returns
its decision together with the rolls it consumed, so a decision can be replayed from the log.
"""
