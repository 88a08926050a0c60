"""The judge's link to a student's kernel: a bounded codec, a two-way channel, the kernel's end.

    codec        values that cross: plain data, bounded, tagged (tuples, records, handles...)
    channel      one connection: length-prefixed JSON frames, calls both ways, nested calls
    endpoint     what both ends share: objects behind handles, calls with their arguments' state
    signatures   a function's signature as data, and a real function that calls the other side
    errors       exceptions as data, and back as exceptions this side can catch
    kernel_side  the kernel's end: serves the judge while a test cell is judged
"""
