/*
 * flame-script.c - the flame graph's script on the page (flame.h): lays
 * the boxes out from the preorder data, draws the ones at least half a
 * pixel wide (a subtree narrower than that is skipped whole), and redraws
 * on zoom, search, resize and a window of the run chosen on the timeline.
 * Invariant: names reach the page only through textContent and
 * setAttribute, never as markup.
 */
#include "flame.h"

/*
 * What is drawn, src: the whole run's figures from #flame-data, or a
 * window's from the timeline's "profil-window" event: box counts (and
 * CPU counts of a wall profile), totals, and what the errors rest on
 * (per box, the looks it holds of each pool: [pool, looks, ...]).
 */
const char flame_script[] =
"(function(){\n"
"var el=document.getElementById('flame-data');if(!el)return;\n"
"var d=JSON.parse(el.textContent),n=d.count.length,scale=d.scale||1,cnt,total,i;\n"
"var box=document.getElementById('flame'),svg=document.getElementById('flame-svg');\n"
"var tip=document.getElementById('flame-tip'),search=document.getElementById('flame-search');\n"
"var shown=document.getElementById('flame-match'),NS='http://www.w3.org/2000/svg',ROW=18;\n"
"var x0=new Float64Array(n),used=new Float64Array(n),depth=new Int32Array(n),end=new Int32Array(n);\n"
"var deepest=0,zoom=0,matches=null;\n"
"var whole={count:d.count,cpu:d.cpu,total:d.total,cputotal:d.cputotal,err:d.err,pools:d.pools||[],looks:[]},src=whole;\n"
"var L=d.looks||[];for(i=0;i+2<L.length;i+=3)(whole.looks[L[i]]=whole.looks[L[i]]||[]).push(L[i+1],L[i+2]);\n"
"for(i=1;i<n;i++)depth[i]=depth[d.parent[i]]+1;\n"
"var cpuBox=document.getElementById('flame-cpu');\n"
/* a wall profile: on-CPU counts beside, and a switch between the two */
"function pick(){var c=!!(src.cpu&&cpuBox&&cpuBox.checked);cnt=c?src.cpu:src.count;total=c?src.cputotal:src.total;}\n"
"function lay(){used.fill(0);deepest=0;for(i=1;i<n;i++){var p=d.parent[i];x0[i]=x0[p]+used[p];\n"
" used[p]+=cnt[i];if(cnt[i]>0&&depth[i]>deepest)deepest=depth[i];}}pick();lay();\n"
"function redo(){if(!cnt[zoom])zoom=0;lay();if(search.value)find();else render();}\n"
"if(d.cpu&&cpuBox){cpuBox.parentNode.hidden=false;cpuBox.addEventListener('change',function(){\n"
" pick();zoom=0;redo();});}\n"
"box.addEventListener('profil-window',function(e){src=e.detail||whole;pick();redo();});\n"
"for(i=n-1;i>=0;i--){if(end[i]<i)end[i]=i;if(i>0&&end[d.parent[i]]<end[i])end[d.parent[i]]=end[i];}\n"
"function fn(i){return d.func[i]<0?null:d.funcs[d.func[i]];}\n"
"function name(i){var f=fn(i);return f?f[0]:'all';}\n"
/*
 * the error of a set of boxes (disjoint), as cli/report/share.c has it:
 * the CPU samples' (Wilson's interval of samples of equal weight) for a
 * set with code in it, and each pool of time placed by looks by the
 * looks the set holds; in points, never past 0 or 100.  A box alone
 * has the tables' own figure, src.err, when there is one; the root,
 * every sample, none.
 */
"function wil(k,n,s){var z=1.959964,p;if(!n)return 0;p=k/n;n/=s;\n"
" return z*Math.sqrt(p*(1-p)/n+z*z/(4*n*n))/(1+z*z/n);}\n"
"function errOf(set){var onCpu=!!src.cpu&&cnt===src.cpu,C=src.cpu?src.cputotal:total,c=0,a=0,code=false,m={},v=0,e,k,j;\n"
" if(set.length===1&&set[0]===0)return 0;\n"
" if(set.length===1&&!onCpu&&src.err)return src.err[set[0]];\n"
" set.forEach(function(i){var f=fn(i),l=src.looks[i];c+=src.cpu?src.cpu[i]:cnt[i];a+=cnt[i];if(!f||!(f[2]&8))code=true;\n"
"  if(!onCpu&&l)for(j=0;j<l.length;j+=2)m[l[j]]=(m[l[j]]||0)+l[j+1];});\n"
" if(code&&C>0){e=C*wil(c,C,scale);v+=e*e;}\n"
" for(k in m){e=src.pools[2*k]*wil(m[k],src.pools[2*k+1],1);v+=e*e;}\n"
" if(!total)return 0;e=100*Math.sqrt(v)/total;k=100*a/total;return Math.min(e,k>50?k:100-k);}\n"
"function pct(k){return total?100*k/total:0;}\n"
"function colour(i){var f=fn(i),h=0,s,k;if(!f)return '#c8c8c8';\n"
" if(f[2]&8)return 'hsl(265,45%,'+(68+i%10)+'%)';\n"
" if(f[2]&2)return '#a9a9a9';if(f[2]&4)return '#d3d3d3';\n"
" for(s=f[0],k=0;k<s.length;k++)h=(h*31+s.charCodeAt(k))>>>0;\n"
" if(f[2]&1)return 'hsl('+(195+h%30)+',60%,'+(62+(h>>>8)%14)+'%)';\n"
" return 'hsl('+(h%50)+',85%,'+(56+(h>>>8)%14)+'%)';}\n"
"function fit(s,w){var c=Math.floor((w-6)/7);return c<2?'':s.length<=c?s:s.slice(0,c-1)+'\\u2026';}\n"
"function add(frag,i,x,w,dim){\n"
" var g=document.createElementNS(NS,'g'),r=document.createElementNS(NS,'rect'),y=(deepest-depth[i])*ROW;\n"
" g.setAttribute('class','fg-box'+(dim?' fg-dim':'')+(matches&&matches[i]?' fg-match':''));\n"
" g.setAttribute('data-i',i);g.setAttribute('data-name',name(i));g.setAttribute('data-count',cnt[i]);\n"
" r.setAttribute('x',x);r.setAttribute('y',y);r.setAttribute('width',w);r.setAttribute('height',ROW-1);\n"
" r.setAttribute('fill',colour(i));g.appendChild(r);\n"
" var t=fit(name(i),w);if(t){var e=document.createElementNS(NS,'text');\n"
"  e.setAttribute('x',x+3);e.setAttribute('y',y+ROW-5);e.textContent=t;g.appendChild(e);}\n"
" frag.appendChild(g);}\n"
"function render(){\n"
" var W=box.clientWidth||960,H=(deepest+1)*ROW,scale=cnt[zoom]?W/cnt[zoom]:0,lo=x0[zoom],frag=document.createDocumentFragment(),a;\n"
" svg.setAttribute('width',W);svg.setAttribute('height',H);svg.setAttribute('viewBox','0 0 '+W+' '+H);\n"
" for(a=zoom;a>=0;a=d.parent[a])add(frag,a,0,W,a!==zoom);\n"
" for(i=zoom+1;i<=end[zoom];i++){var w=cnt[i]*scale;\n"
"  if(w<0.5){i=end[i];continue;}add(frag,i,(x0[i]-lo)*scale,w,false);}\n"
" while(svg.firstChild)svg.removeChild(svg.firstChild);svg.appendChild(frag);}\n"
"function boxOf(e){var g=e.target.closest?e.target.closest('g.fg-box'):null;return g?+g.getAttribute('data-i'):-1;}\n"
"svg.addEventListener('click',function(e){var i=boxOf(e);if(i>=0){zoom=i;render();}});\n"
"svg.addEventListener('mousemove',function(e){var i=boxOf(e);if(i<0){tip.hidden=true;return;}\n"
" var f=fn(i),lines=[name(i),!f?'every sample':f[2]&2?'the unwinder stopped here':\n"
"  f[2]&8?'off the CPU':f[1]+(f[2]&1?' (kernel)':'')+(f[2]&16?'; its caller below found by frame pointer, not unwind tables':''),\n"
"  (src.cpu&&cnt!==src.cpu?(cnt[i]*d.secs).toFixed(3)+' s of wall time ('+src.cpu[i]+' CPU samples), ':cnt[i]+' samples, ')+pct(cnt[i]).toFixed(2)+'% \\u00b1 '+errOf([i]).toFixed(2)+' of all'];\n"
" while(tip.firstChild)tip.removeChild(tip.firstChild);\n"
" lines.forEach(function(s,k){var e=document.createElement(k?'div':'b');e.textContent=s;tip.appendChild(e);});\n"
" var r=box.getBoundingClientRect(),x=e.clientX-r.left+14;\n"
" tip.hidden=false;if(x+tip.offsetWidth>r.width)x=Math.max(0,e.clientX-r.left-14-tip.offsetWidth);\n"
" tip.style.left=x+'px';tip.style.top=(e.clientY-r.top+14)+'px';});\n"
"svg.addEventListener('mouseleave',function(){tip.hidden=true;});\n"
"document.getElementById('flame-reset').addEventListener('click',function(){zoom=0;render();});\n"
/* a sample counts once: only matches with no match below them on the stack add */
"function find(){var q=search.value,test,fm,under,sum=0,set=[];\n"
" if(!q){matches=null;shown.textContent='';shown.removeAttribute('data-samples');render();return;}\n"
" try{var re=new RegExp(q);test=function(s){return re.test(s);};}\n"
" catch(x){test=function(s){return s.indexOf(q)>=0;};}\n"
" fm=d.funcs.map(function(f){return test(f[0]);});matches=new Uint8Array(n);under=new Uint8Array(n);\n"
" for(i=1;i<n;i++){var p=d.parent[i];under[i]=under[p]||matches[p];matches[i]=fm[d.func[i]]?1:0;\n"
"  if(matches[i]&&!under[i]){sum+=cnt[i];set.push(i);}}\n"
" shown.setAttribute('data-samples',sum);\n"
" shown.textContent='matched: '+pct(sum).toFixed(2)+'% \\u00b1 '+errOf(set).toFixed(2)+' of all ('+\n"
"  (src.cpu&&cnt!==src.cpu?(sum*d.secs).toFixed(3)+' s of '+(total*d.secs).toFixed(3)+' s':sum+' of '+total+' samples')+')';render();}\n"
"search.addEventListener('input',find);\n"
"window.addEventListener('resize',render);\n"
"if(search.value)find();else render();\n"
"})();\n";
