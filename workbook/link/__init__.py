"""The judge's link to a student's kernel: a bounded codec, a two-way channel, both ends.

    codec        values that cross: plain data, bounded, tagged (tuples, records, handles...)
    channel      one connection: length-prefixed JSON frames, calls both ways, nested calls
    endpoint     what both ends share: objects behind handles, calls with their arguments' state
    shadow       a copy of an argument part, to tell cheaply whether a call changed it
    signatures   a function's signature as data, and a real function that calls the other side
    errors       exceptions as data (args, SDK bodies), and back as exceptions this side can catch
    exc_classes  which class an exception's name becomes here: an allow-list, else a stand-in
    judge_end    the judge's end: the notebook's names as proxies, handles, exceptions as classes
    names        a test cell's names: its own, else the chapter's exercises, asked of the kernel
    kernel_objects  what the notebook's objects become at the judge's end: KernelRef, Record
    trust        which judge objects the kernel may reach; notebook names the judge replaces
    sdk_bridge   a fake model's SDK client handed to the kernel, its HTTP answered by the judge
    heard        what the notebook sent, kept out of a hidden test's message
    kernel_side  the kernel's end: serves the judge while a test cell is judged
    replay       another process for a test: the notebook's cells run again, then it serves the judge
    sqlite_reader  how a test reads a SQLite file the notebook wrote: read-only, immutable, bounded
"""
