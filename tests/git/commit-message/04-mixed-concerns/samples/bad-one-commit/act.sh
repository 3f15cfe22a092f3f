# the arm committed everything as one commit
git commit -q -m "fix: invoice rounding, token TTL and itsdangerous bump"
