"""What a submission cannot reach or flood: the walls around its kernel, the caps on its output.

The OS sandbox each kernel runs in, its cgroup, the limits the kernel sets on itself, the caps
on every byte read back, and how a handed-in file is read (autograder/README.md, "Integrity"):

    sandbox        the OS sandbox (bubblewrap) around each submission's kernel
    cgroups        a sandbox's CPU share and process cap (a cgroup where the machine allows one)
    kernel_limits  inside the grading kernel, before its first cell: memory limit, read protection
    caps           bounds on every byte read back from a kernel: per field, per cell, per notebook
    safe_files     reading what students hand in: regular files only, no link followed, zips checked
"""
