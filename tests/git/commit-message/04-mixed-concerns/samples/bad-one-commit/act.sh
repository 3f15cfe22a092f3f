# the arm committed everything as one commit
git -c commit.gpgsign=false commit -q -m "fix: invoice rounding, token TTL and itsdangerous bump"
