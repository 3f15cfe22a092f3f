# the arm staged and committed the work itself
git add src/ledgerly/auth/tokens.py
git -c commit.gpgsign=false commit -q -m "feat(auth): raise the default token lifetime"
