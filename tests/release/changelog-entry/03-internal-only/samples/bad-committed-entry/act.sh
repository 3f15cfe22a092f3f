# the arm committed its entry, so the working tree is clean again
git commit -q -am 'Update changelog'
