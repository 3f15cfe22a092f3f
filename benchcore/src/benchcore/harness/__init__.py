"""The thin I/O shell: files, git, temp copies, transcripts, hard assertions."""
