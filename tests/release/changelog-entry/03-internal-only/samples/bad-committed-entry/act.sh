# the arm committed its entry, so the working tree is clean again
git -c commit.gpgsign=false commit -q -am 'Update changelog'
