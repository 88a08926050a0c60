"""The judge's link to a student's kernel: a bounded codec, a two-way channel, the kernel's end."""
